"""The only modules that touch hardware libraries (picamera2, gpiozero), imported lazily."""

"""The only modules that touch hardware libraries (picamera2, gpiozero), imported lazily.

Every frame source lives here: the Pi camera, a USB webcam and recorded frames
(:mod:`.camera`) and the demo's rendered throws (:mod:`.demo`), all behind the one
``FrameSource`` protocol; the turn button (:mod:`.button`) and its light and buzzer
(:mod:`.feedback`).
"""

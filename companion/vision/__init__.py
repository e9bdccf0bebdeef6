"""Recognition: numpy + cv2 only; arrays in, dataclasses out; never opens a camera.

Frames are BGR ``uint8`` arrays of shape (h, w, 3), exactly as the camera sources
and ``cv2.imread`` deliver them. Nothing here imports ``companion.games`` or the scene
renderer (``companion.synth``): what the Rock the Bock dice look like lives in
``faces_look``.
"""

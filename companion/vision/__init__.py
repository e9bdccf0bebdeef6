"""Recognition: numpy + cv2 only; arrays in, dataclasses out; never opens a camera.

Frames are BGR ``uint8`` arrays of shape (h, w, 3), exactly as the camera sources
and ``cv2.imread`` deliver them. Nothing here imports ``companion.games`` or the scene
renderer (``companion.synth``): what the Rock the Bock dice look like lives in
``faces_look``.

It owns every stage from a frame to a ``Reading`` and from a stream of frames to a throw:

- the tray: ``tray`` (the profile), ``trayfind`` (finding it in a wider scene),
  ``calibrate`` (a profile from one frame), ``autotray`` (the tray of an uncalibrated
  camera), ``rectify`` (the straightened view and the way back to the frame);
- finding dice: ``spot`` (the learned spotters), ``detect`` (the classical finder);
- pip dice: ``recognizer`` (``PipRecognizer``), ``pipnet`` (the CNN), ``pips`` (the pip
  counter), ``pipread`` (each die's value and the flag rule), ``dicelist`` (one reading
  per die, no more dice than the game has);
- Rock the Bock dice: ``faces`` (``BockRecognizer``) and its ``faces_*`` stages,
  ``enrol`` (teaching it a table's own set);
- frames over time: ``settle`` (dice at rest), ``occlusion`` (hands, cups, coasters),
  ``combine`` (one reading from several frames), ``watch`` (frames to throws);
- ``annotate`` (the picture of what was read), ``dnn`` (loading the ONNX models),
  ``types`` (the value types every stage shares).
"""

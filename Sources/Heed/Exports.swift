// Apps import Heed alone; the stage modules' public types come with it.
@_exported import HeedAudio
@_exported import HeedIntents
@_exported import HeedRecognition
@_exported import HeedAuthorization
@_exported import HeedCapture
@_exported import HeedShortcuts

// Apps import Heed and get the pipeline (Heed's own types), contexts and intents, and the
// permission gate. The stages below (audio, recognition, capture, shortcuts) are modules of their
// own: import them by name for their finer parts (a DecoderConfiguration, a resampler).
@_exported import HeedIntents
@_exported import HeedAuthorization

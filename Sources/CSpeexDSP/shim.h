// speexdsp's preprocessor (noise suppression) for Heed's front end; see HeedAudio/NoiseSuppressor.swift.
#include <speex/speex_preprocess.h>

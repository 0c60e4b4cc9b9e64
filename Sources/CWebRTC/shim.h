// Intentionally empty: the headers are C++ and are included by Sources/CWebRTCNoise/shim.cc.

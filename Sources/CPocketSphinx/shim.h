// Everything Heed calls from PocketSphinx 5prealpha and sphinxbase. No shim functions are needed:
// the variadic cmd_ln_init is avoided by calling cmd_ln_parse_r with an argv array.
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/jsgf.h>
#include <sphinxbase/logmath.h>

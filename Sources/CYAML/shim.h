// libyaml (Debian's libyaml-dev), the YAML parser HeedYAML builds its node trees from.
#include <yaml.h>

#ifndef FENCELAB_CZLIB_SHIM_H
#define FENCELAB_CZLIB_SHIM_H
// zlib from the system (Debian: zlib1g-dev), for `fencelab sweep --csv-gzip`; only
// _FenceLabSupport imports this module.
#include <zlib.h>

/// deflateInit2 with gzip framing (window bits 15 + 16), `level`, memory level 8 and the default
/// strategy (the macro form needs the zlib version and the stream size, which Swift cannot pass).
static inline int fl_deflate_init_gzip(z_stream *strm, int level) {
    return deflateInit2(strm, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif

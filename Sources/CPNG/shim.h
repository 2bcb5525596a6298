#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H

#include <png.h>

/* Function-like macros do not reach Swift; this exposes the one the encoder needs. */

/** Upper bound of the encoded size of `image`, so the encoder can write in one pass. */
static inline png_alloc_size_t cpl_png_image_png_size_max(png_image image) {
    return PNG_IMAGE_PNG_SIZE_MAX(image);
}

#endif

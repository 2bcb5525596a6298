#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H

/* jpeglib.h needs size_t and FILE declared first. */
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>

#pragma clang assume_nonnull begin

/** Why the last failing shim call failed. */
typedef enum __attribute__((enum_extensibility(closed))) cpl_jpeg_failure {
    /** No call has failed. */
    CPL_JPEG_FAILURE_NONE = 0,
    /** libjpeg rejected the data: not a JPEG, truncated, or corrupt. */
    CPL_JPEG_FAILURE_CORRUPT = 1,
    /** Well-formed data libjpeg-turbo cannot decode, such as 12-bit samples. */
    CPL_JPEG_FAILURE_UNSUPPORTED = 2,
    /** A caller-set limit was hit: libjpeg's memory or the number of progressive scans. */
    CPL_JPEG_FAILURE_LIMIT = 3,
} cpl_jpeg_failure;

/** A libjpeg decompressor whose errors and corrupt-data warnings come back as return codes. */
typedef struct cpl_jpeg_decoder cpl_jpeg_decoder;

/** Creates a decoder capping libjpeg's large allocations at `max_memory` bytes and
    progressive input at `max_scans` scans; NULL when out of memory. */
cpl_jpeg_decoder *_Nullable cpl_jpeg_decoder_create(long max_memory, int max_scans);

/** Releases the decoder and everything libjpeg allocated for it. */
void cpl_jpeg_decoder_destroy(cpl_jpeg_decoder *decoder);

/** The libjpeg state, for reading the header fields and setting decompression parameters. */
struct jpeg_decompress_struct *cpl_jpeg_decoder_cinfo(cpl_jpeg_decoder *decoder);

/** The message of the last failure, empty if none. */
const char *cpl_jpeg_decoder_message(const cpl_jpeg_decoder *decoder);

/** The kind of the last failure. */
cpl_jpeg_failure cpl_jpeg_decoder_failure(const cpl_jpeg_decoder *decoder);

/* Wrappers of the libjpeg calls that can fail: 0 on success, -1 on failure. */

/** Reads the header of the `size` bytes at `data`, which must stay valid until the decoder is destroyed;
    APP1 markers are saved in `cinfo->marker_list` for the Exif orientation. */
int cpl_jpeg_read_header(cpl_jpeg_decoder *decoder, const unsigned char *data, unsigned long size);

/** jpeg_calc_output_dimensions: fills output_width/height for the current scale. */
int cpl_jpeg_calc_output_dimensions(cpl_jpeg_decoder *decoder);

/** jpeg_start_decompress: for a progressive JPEG this reads all the scans. */
int cpl_jpeg_start_decompress(cpl_jpeg_decoder *decoder);

/** jpeg_read_scanlines into `rows`, at most `max_lines`; `lines_read` gets the count. */
int cpl_jpeg_read_scanlines(cpl_jpeg_decoder *decoder, JSAMPARRAY _Nonnull rows, JDIMENSION max_lines,
                            JDIMENSION *lines_read);

/** jpeg_finish_decompress: reads up to the EOI marker. */
int cpl_jpeg_finish_decompress(cpl_jpeg_decoder *decoder);

/** Reads the header of the first `size` bytes of a JPEG that may still be arriving (`data` stays valid
    until the decoder is destroyed): 0 when read, 1 when the header has not all arrived yet, -1 on failure.
    Reading stops, never fails, where the bytes end: what follows has not arrived. */
int cpl_jpeg_read_header_arrived(cpl_jpeg_decoder *decoder, const unsigned char *data, unsigned long size);

/** Decodes what has arrived, after `cpl_jpeg_read_header_arrived` and the scale chosen, into `rows`
    (`output_height` of them): a JPEG of several scans (progressive) in libjpeg's buffered-image mode as of
    its last complete scan (its coefficients so far), a single-scan (baseline) one as far as its rows have
    arrived. `rows_ready` gets the rows written (the rest are left as they were), `scans` the complete
    scans shown (1 for a baseline one), `reached_end` 1 when no later byte can show more (the EOI was
    read, or a baseline one's last row). 0 when something was decoded, 1 when nothing can be shown yet,
    -1 on failure. */
int cpl_jpeg_decode_arrived(cpl_jpeg_decoder *decoder, JSAMPARRAY _Nonnull rows, JDIMENSION *rows_ready, int *scans,
                            int *reached_end);

/* A JPEG decoded while its bytes arrive: the decoder keeps its own copy of the bytes not read yet,
   so each call decodes only what came since the last, and libjpeg suspends where they end. */

/** Appends `size` bytes that have arrived (the decoder copies them); 0, or -1 when out of memory. */
int cpl_jpeg_stream_append(cpl_jpeg_decoder *decoder, const unsigned char *data, unsigned long size);

/** Reads the header from the bytes appended: 0 when read, 1 when it has not all arrived, -1 on failure. */
int cpl_jpeg_stream_read_header(cpl_jpeg_decoder *decoder);

/** Takes in the bytes appended since the last call, after the header was read and the scale chosen:
    a single-scan (baseline) JPEG's rows are decoded into `rows` (`output_height` of them, the same
    rows at every call); a progressive one's scans into libjpeg's coefficients (buffered-image mode).
    `rows_ready` gets the rows decoded so far (0 for a progressive JPEG), `scans` the complete scans,
    `reached_end` 1 once no later byte can add to the image. 0, or -1 on failure. */
int cpl_jpeg_stream_consume(cpl_jpeg_decoder *decoder, JSAMPARRAY _Nonnull rows, JDIMENSION *rows_ready, int *scans,
                            int *reached_end);

/** A progressive JPEG's image as of its last complete scan, into `rows`: 0 when written, 1 when there
    is no complete scan yet or none since the last output, -1 on failure. */
int cpl_jpeg_stream_output(cpl_jpeg_decoder *decoder, JSAMPARRAY _Nonnull rows);

/** Every byte is in: decodes the rest into `rows` and reads to the EOI, failing where the bytes end
    early as `cpl_jpeg_read_header`'s decoder would (no EOI invented silently). 0, or -1 on failure. */
int cpl_jpeg_stream_finish(cpl_jpeg_decoder *decoder, JSAMPARRAY _Nonnull rows);

/** Encodes tightly packed `pixels` (`components` bytes each, in `color_space`) to a JPEG.
    On success returns 0 and a malloc'd buffer in `output` (the caller frees it) of `output_size` bytes;
    on failure returns -1 and libjpeg's message in `message`. */
int cpl_jpeg_encode(const unsigned char *pixels, JDIMENSION width, JDIMENSION height, int components,
                    J_COLOR_SPACE color_space, int quality, int progressive,
                    unsigned char *_Nullable *_Nonnull output, unsigned long *output_size,
                    char *message, size_t message_size);

#pragma clang assume_nonnull end

#endif

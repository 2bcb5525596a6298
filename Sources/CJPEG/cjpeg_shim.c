#include "cjpeg_shim.h"

#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* libjpeg hands callbacks the cinfo, whose `err` points at `pub` and `progress` at its `pub`. */
typedef struct cpl_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    cpl_jpeg_failure failure;
    char message[JMSG_LENGTH_MAX];
} cpl_error;

typedef struct cpl_progress {
    struct jpeg_progress_mgr pub;
    int max_scans;
} cpl_progress;

struct cpl_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    cpl_error error;
    cpl_progress progress;
    /* The source of `cpl_jpeg_read_header_arrived`: suspends where the bytes end. */
    struct jpeg_source_mgr arrived;
    int created;
    /* The `cpl_jpeg_stream_*` state: the bytes not read yet (at the front of `stream`), a skip past
       them owed to the next bytes, and where the decode is. */
    struct jpeg_source_mgr stream_source;
    unsigned char *stream;
    size_t stream_capacity;
    unsigned long skip_owed;
    int stream_set_up;
    int stream_markers_saved;
    int stream_final;
    int stream_started;
    int stream_output_open;
    int stream_scans;
    int stream_scans_shown;
    int stream_end;
};

static cpl_jpeg_failure cpl_classify(int msg_code) {
    switch (msg_code) {
    case JERR_OUT_OF_MEMORY:
    case JERR_NO_BACKING_STORE:
        return CPL_JPEG_FAILURE_LIMIT;
    case JERR_BAD_PRECISION:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
        return CPL_JPEG_FAILURE_UNSUPPORTED;
    default:
        return CPL_JPEG_FAILURE_CORRUPT;
    }
}

/* Replaces libjpeg's default, which prints and calls exit(). */
static void cpl_error_exit(j_common_ptr cinfo) {
    cpl_error *error = (cpl_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    error->failure = cpl_classify(cinfo->err->msg_code);
    if (error->failure == CPL_JPEG_FAILURE_LIMIT && cinfo->mem != NULL && cinfo->mem->max_memory_to_use > 0) {
        snprintf(error->message, sizeof error->message, "needs more than the memory limit of %ld bytes (%s)",
                 cinfo->mem->max_memory_to_use, text);
    } else {
        memcpy(error->message, text, sizeof text);
    }
    longjmp(error->jump, 1);
}

/* Level -1 is a corrupt-data warning (libjpeg then goes on with made-up data); input is untrusted, so fail. */
static void cpl_emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level < 0) {
        (*cinfo->err->error_exit)(cinfo);
    }
}

/* As djpeg -maxscans: a progressive JPEG can have thousands of tiny scans, each costing a full pass. */
static void cpl_progress_monitor(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) {
        return;
    }
    cpl_progress *progress = (cpl_progress *)cinfo->progress;
    int scan = ((j_decompress_ptr)cinfo)->input_scan_number;
    if (scan > progress->max_scans) {
        cpl_error *error = (cpl_error *)cinfo->err;
        error->failure = CPL_JPEG_FAILURE_LIMIT;
        snprintf(error->message, sizeof error->message,
                 "progressive JPEG has more than %d scans, the limit", progress->max_scans);
        longjmp(error->jump, 1);
    }
}

static void cpl_error_init(cpl_error *error) {
    jpeg_std_error(&error->pub);
    error->pub.error_exit = cpl_error_exit;
    error->pub.emit_message = cpl_emit_message;
    error->failure = CPL_JPEG_FAILURE_NONE;
    error->message[0] = '\0';
}

cpl_jpeg_decoder *cpl_jpeg_decoder_create(long max_memory, int max_scans) {
    cpl_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) {
        return NULL;
    }
    cpl_error_init(&decoder->error);
    decoder->cinfo.err = &decoder->error.pub;
    if (setjmp(decoder->error.jump)) {
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->created = 1;
    decoder->cinfo.mem->max_memory_to_use = max_memory;
    decoder->progress.pub.progress_monitor = cpl_progress_monitor;
    decoder->progress.max_scans = max_scans;
    decoder->cinfo.progress = &decoder->progress.pub;
    return decoder;
}

void cpl_jpeg_decoder_destroy(cpl_jpeg_decoder *decoder) {
    if (decoder->created) {
        jpeg_destroy_decompress(&decoder->cinfo);
    }
    free(decoder->stream);
    free(decoder);
}

struct jpeg_decompress_struct *cpl_jpeg_decoder_cinfo(cpl_jpeg_decoder *decoder) {
    return &decoder->cinfo;
}

const char *cpl_jpeg_decoder_message(const cpl_jpeg_decoder *decoder) {
    return decoder->error.message;
}

cpl_jpeg_failure cpl_jpeg_decoder_failure(const cpl_jpeg_decoder *decoder) {
    return decoder->error.failure;
}

int cpl_jpeg_read_header(cpl_jpeg_decoder *decoder, const unsigned char *data, unsigned long size) {
    if (setjmp(decoder->error.jump)) {
        return -1;
    }
    jpeg_mem_src(&decoder->cinfo, data, size);
    /* Keep APP1 (Exif) so the caller can read the orientation; 0xFFFF is a marker's largest payload. */
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&decoder->cinfo, TRUE);
    return 0;
}

int cpl_jpeg_calc_output_dimensions(cpl_jpeg_decoder *decoder) {
    if (setjmp(decoder->error.jump)) {
        return -1;
    }
    jpeg_calc_output_dimensions(&decoder->cinfo);
    return 0;
}

int cpl_jpeg_start_decompress(cpl_jpeg_decoder *decoder) {
    if (setjmp(decoder->error.jump)) {
        return -1;
    }
    jpeg_start_decompress(&decoder->cinfo);
    return 0;
}

int cpl_jpeg_read_scanlines(cpl_jpeg_decoder *decoder, JSAMPARRAY rows, JDIMENSION max_lines,
                            JDIMENSION *lines_read) {
    if (setjmp(decoder->error.jump)) {
        return -1;
    }
    *lines_read = jpeg_read_scanlines(&decoder->cinfo, rows, max_lines);
    return 0;
}

int cpl_jpeg_finish_decompress(cpl_jpeg_decoder *decoder) {
    if (setjmp(decoder->error.jump)) {
        return -1;
    }
    jpeg_finish_decompress(&decoder->cinfo);
    return 0;
}

/* A source over the bytes that have arrived: at their end it suspends (libjpeg then returns
   JPEG_SUSPENDED or no rows) instead of inventing an EOI, so nothing made up is ever shown. */
static void cpl_arrived_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean cpl_arrived_fill(j_decompress_ptr cinfo) {
    (void)cinfo;
    return FALSE;
}

/* A skip past the bytes held leaves none: the next read suspends, and decoding stops there. */
static void cpl_arrived_skip(j_decompress_ptr cinfo, long num_bytes) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (num_bytes <= 0) {
        return;
    }
    if ((unsigned long)num_bytes > src->bytes_in_buffer) {
        src->next_input_byte += src->bytes_in_buffer;
        src->bytes_in_buffer = 0;
        return;
    }
    src->next_input_byte += num_bytes;
    src->bytes_in_buffer -= (size_t)num_bytes;
}

static void cpl_arrived_term(j_decompress_ptr cinfo) { (void)cinfo; }

/* Makes `src`, over `size` bytes at `data`, the decoder's source, refilled by `fill` and skipped by `skip`. */
static void cpl_use_source(cpl_jpeg_decoder *decoder, struct jpeg_source_mgr *src, boolean (*fill)(j_decompress_ptr),
                           void (*skip)(j_decompress_ptr, long), const unsigned char *data, size_t size) {
    src->init_source = cpl_arrived_init;
    src->fill_input_buffer = fill;
    src->skip_input_data = skip;
    src->resync_to_restart = jpeg_resync_to_restart;
    src->term_source = cpl_arrived_term;
    src->next_input_byte = data;
    src->bytes_in_buffer = size;
    decoder->cinfo.src = src;
}

int cpl_jpeg_read_header_arrived(cpl_jpeg_decoder *decoder, const unsigned char *data, unsigned long size) {
    if (setjmp(decoder->error.jump)) {
        return -1;
    }
    cpl_use_source(decoder, &decoder->arrived, cpl_arrived_fill, cpl_arrived_skip, data, size);
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 1, 0xFFFF);
    return jpeg_read_header(&decoder->cinfo, TRUE) == JPEG_SUSPENDED ? 1 : 0;
}

/* Reads rows into `rows` until they are all there or the input suspends; the count written. */
static JDIMENSION cpl_read_rows(j_decompress_ptr cinfo, JSAMPARRAY rows) {
    while (cinfo->output_scanline < cinfo->output_height) {
        JDIMENSION line = cinfo->output_scanline;
        if (jpeg_read_scanlines(cinfo, rows + line, cinfo->output_height - line) == 0) {
            break;
        }
    }
    return cinfo->output_scanline;
}

int cpl_jpeg_decode_arrived(cpl_jpeg_decoder *decoder, JSAMPARRAY rows, JDIMENSION *rows_ready, int *scans,
                            int *reached_end) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    *rows_ready = 0;
    *scans = 0;
    *reached_end = 0;
    if (setjmp(decoder->error.jump)) {
        return -1;
    }
    if (!jpeg_has_multiple_scans(cinfo)) {
        if (!jpeg_start_decompress(cinfo)) {
            return 1;
        }
        *rows_ready = cpl_read_rows(cinfo, rows);
        *scans = 1;
        *reached_end = *rows_ready == cinfo->output_height;
        return *rows_ready > 0 ? 0 : 1;
    }
    cinfo->buffered_image = TRUE;
    if (!jpeg_start_decompress(cinfo)) {
        return 1;
    }
    /* Take in everything that has arrived, noting the last scan that ended. */
    int completed = 0;
    for (;;) {
        int status = jpeg_consume_input(cinfo);
        if (status == JPEG_SCAN_COMPLETED || status == JPEG_REACHED_EOI) {
            completed = cinfo->input_scan_number;
        }
        if (status == JPEG_REACHED_EOI) {
            /* Whatever follows the EOI (padding, a trailer) is not part of the image. */
            *reached_end = 1;
        }
        if (status == JPEG_SUSPENDED || status == JPEG_REACHED_EOI) {
            break;
        }
    }
    if (completed == 0) {
        return 1;
    }
    /* A complete scan's output needs no more input, so it never suspends half-way. */
    if (!jpeg_start_output(cinfo, completed)) {
        return 1;
    }
    *rows_ready = cpl_read_rows(cinfo, rows);
    *scans = completed;
    return *rows_ready > 0 ? 0 : 1;
}

/* The stream's source: where the bytes appended end it suspends, until every byte is in
   (`stream_final`); then it ends the image as jpeg_mem_src does, with a warning that fails the decode. */
static const JOCTET cpl_fake_eoi[2] = {0xFF, JPEG_EOI};

static boolean cpl_stream_fill(j_decompress_ptr cinfo) {
    cpl_jpeg_decoder *decoder = (cpl_jpeg_decoder *)cinfo;
    if (!decoder->stream_final) {
        return FALSE;
    }
    WARNMS(cinfo, JWRN_JPEG_EOF);
    cinfo->src->next_input_byte = cpl_fake_eoi;
    cinfo->src->bytes_in_buffer = 2;
    return TRUE;
}

/* A skip past the bytes held is owed to the next ones appended. */
static void cpl_stream_skip(j_decompress_ptr cinfo, long num_bytes) {
    cpl_jpeg_decoder *decoder = (cpl_jpeg_decoder *)cinfo;
    struct jpeg_source_mgr *src = cinfo->src;
    if (num_bytes <= 0) {
        return;
    }
    if ((unsigned long)num_bytes <= src->bytes_in_buffer) {
        src->next_input_byte += num_bytes;
        src->bytes_in_buffer -= (size_t)num_bytes;
        return;
    }
    decoder->skip_owed += (unsigned long)num_bytes - src->bytes_in_buffer;
    src->next_input_byte += src->bytes_in_buffer;
    src->bytes_in_buffer = 0;
    if (decoder->stream_final) {
        (void)cpl_stream_fill(cinfo);
    }
}

int cpl_jpeg_stream_append(cpl_jpeg_decoder *decoder, const unsigned char *data, unsigned long size) {
    struct jpeg_source_mgr *src = &decoder->stream_source;
    if (!decoder->stream_set_up) {
        cpl_use_source(decoder, src, cpl_stream_fill, cpl_stream_skip, NULL, 0);
        decoder->stream_set_up = 1;
    }
    unsigned long owed = decoder->skip_owed < size ? decoder->skip_owed : size;
    decoder->skip_owed -= owed;
    data += owed;
    size -= owed;
    /* What libjpeg has read is dropped and the rest moved to the front (libjpeg.txt, "I/O suspension"). */
    size_t unread = src->bytes_in_buffer;
    if (unread > 0 && src->next_input_byte != decoder->stream) {
        memmove(decoder->stream, src->next_input_byte, unread);
    }
    if (unread + size > decoder->stream_capacity) {
        size_t capacity = (unread + size) * 2;
        unsigned char *grown = realloc(decoder->stream, capacity);
        if (grown == NULL) {
            return -1;
        }
        decoder->stream = grown;
        decoder->stream_capacity = capacity;
    }
    if (size > 0) {
        memcpy(decoder->stream + unread, data, size);
    }
    src->next_input_byte = decoder->stream;
    src->bytes_in_buffer = unread + size;
    return 0;
}

int cpl_jpeg_stream_read_header(cpl_jpeg_decoder *decoder) {
    /* No byte appended yet: libjpeg has no source to read. */
    if (!decoder->stream_set_up) {
        return 1;
    }
    if (setjmp(decoder->error.jump)) {
        return -1;
    }
    if (!decoder->stream_markers_saved) {
        jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 1, 0xFFFF);
        decoder->stream_markers_saved = 1;
    }
    return jpeg_read_header(&decoder->cinfo, TRUE) == JPEG_SUSPENDED ? 1 : 0;
}

/* Starts the decompression once: a progressive JPEG in buffered-image mode, so its scans can be shown
   as they complete and its coefficients taken in as they arrive. Suspends (FALSE) only for want of input. */
static int cpl_stream_start(cpl_jpeg_decoder *decoder) {
    if (!decoder->stream_started) {
        decoder->cinfo.buffered_image = jpeg_has_multiple_scans(&decoder->cinfo);
        if (!jpeg_start_decompress(&decoder->cinfo)) {
            return 0;
        }
        decoder->stream_started = 1;
    }
    return 1;
}

/* Ends an output pass that is open; FALSE while the next scan's start has not arrived. */
static int cpl_stream_close_output(cpl_jpeg_decoder *decoder) {
    if (decoder->stream_output_open) {
        if (!jpeg_finish_output(&decoder->cinfo)) {
            return 0;
        }
        decoder->stream_output_open = 0;
    }
    return 1;
}

/* Takes in a progressive JPEG's bytes until they run out, counting the scans completed. */
static void cpl_stream_take_scans(cpl_jpeg_decoder *decoder) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (!cpl_stream_close_output(decoder)) {
        return;
    }
    while (!jpeg_input_complete(cinfo)) {
        int status = jpeg_consume_input(cinfo);
        if (status == JPEG_SCAN_COMPLETED || status == JPEG_REACHED_EOI) {
            decoder->stream_scans = cinfo->input_scan_number;
        }
        if (status == JPEG_SUSPENDED) {
            break;
        }
    }
    if (jpeg_input_complete(cinfo)) {
        decoder->stream_scans = cinfo->input_scan_number;
        decoder->stream_end = 1;
    }
}

int cpl_jpeg_stream_consume(cpl_jpeg_decoder *decoder, JSAMPARRAY rows, JDIMENSION *rows_ready, int *scans,
                            int *reached_end) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    *rows_ready = 0;
    if (setjmp(decoder->error.jump)) {
        return -1;
    }
    if (cpl_stream_start(decoder)) {
        if (cinfo->buffered_image) {
            cpl_stream_take_scans(decoder);
        } else {
            *rows_ready = cpl_read_rows(cinfo, rows);
            decoder->stream_scans = *rows_ready > 0;
            decoder->stream_end = *rows_ready == cinfo->output_height;
        }
    }
    *scans = decoder->stream_scans;
    *reached_end = decoder->stream_end;
    return 0;
}

/* Writes the image as of complete scan `scan` into `rows` (a complete scan's output reads no input);
   the rows written. */
static JDIMENSION cpl_stream_write_scan(cpl_jpeg_decoder *decoder, int scan, JSAMPARRAY rows) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    jpeg_start_output(cinfo, scan);
    decoder->stream_output_open = 1;
    JDIMENSION written = cpl_read_rows(cinfo, rows);
    decoder->stream_scans_shown = scan;
    (void)cpl_stream_close_output(decoder);
    return written;
}

int cpl_jpeg_stream_output(cpl_jpeg_decoder *decoder, JSAMPARRAY rows) {
    if (setjmp(decoder->error.jump)) {
        return -1;
    }
    if (!decoder->stream_started || !decoder->cinfo.buffered_image || !cpl_stream_close_output(decoder)) {
        return 1;
    }
    if (decoder->stream_scans == 0 || decoder->stream_scans == decoder->stream_scans_shown) {
        return 1;
    }
    cpl_stream_write_scan(decoder, decoder->stream_scans, rows);
    return 0;
}

int cpl_jpeg_stream_finish(cpl_jpeg_decoder *decoder, JSAMPARRAY rows) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    if (setjmp(decoder->error.jump)) {
        return -1;
    }
    /* From here the source never suspends: where the bytes end, it ends the image with a warning. */
    decoder->stream_final = 1;
    (void)cpl_stream_start(decoder);
    JDIMENSION written;
    if (cinfo->buffered_image) {
        cpl_stream_take_scans(decoder);
        written = cpl_stream_write_scan(decoder, cinfo->input_scan_number, rows);
    } else {
        written = cpl_read_rows(cinfo, rows);
    }
    if (written < cinfo->output_height) {
        ERREXIT(cinfo, JERR_INPUT_EOF);
    }
    jpeg_finish_decompress(cinfo);
    return 0;
}

/* Heap-allocated so nothing libjpeg updates lives in a local that longjmp could leave stale. */
typedef struct cpl_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    cpl_error error;
    unsigned char *buffer;
    unsigned char *output;
    unsigned long output_size;
} cpl_jpeg_encoder;

/* turbojpeg's tjBufSize bound (2 bytes per sample at worst, MCU-padded): jpeg_mem_dest then never
   reallocates, and a reallocated buffer would leak on error since only libjpeg knows it. */
static unsigned long cpl_jpeg_size_bound(JDIMENSION width, JDIMENSION height, int components) {
    unsigned long padded_width = ((unsigned long)width + 15) / 16 * 16;
    unsigned long padded_height = ((unsigned long)height + 15) / 16 * 16;
    return padded_width * padded_height * (unsigned long)components * 2 + 4096;
}

int cpl_jpeg_encode(const unsigned char *pixels, JDIMENSION width, JDIMENSION height, int components,
                    J_COLOR_SPACE color_space, int quality, int progressive,
                    unsigned char **output, unsigned long *output_size,
                    char *message, size_t message_size) {
    *output = NULL;
    *output_size = 0;
    cpl_jpeg_encoder *encoder = calloc(1, sizeof *encoder);
    if (encoder != NULL) {
        encoder->output_size = cpl_jpeg_size_bound(width, height, components);
        encoder->buffer = malloc(encoder->output_size);
    }
    if (encoder == NULL || encoder->buffer == NULL) {
        snprintf(message, message_size, "out of memory");
        free(encoder);
        return -1;
    }
    encoder->output = encoder->buffer;
    cpl_error_init(&encoder->error);
    encoder->cinfo.err = &encoder->error.pub;
    if (setjmp(encoder->error.jump)) {
        snprintf(message, message_size, "%s", encoder->error.message);
        jpeg_destroy_compress(&encoder->cinfo);
        free(encoder->buffer);
        free(encoder);
        return -1;
    }
    jpeg_create_compress(&encoder->cinfo);
    jpeg_mem_dest(&encoder->cinfo, &encoder->output, &encoder->output_size);
    encoder->cinfo.image_width = width;
    encoder->cinfo.image_height = height;
    encoder->cinfo.input_components = components;
    encoder->cinfo.in_color_space = color_space;
    jpeg_set_defaults(&encoder->cinfo);
    jpeg_set_quality(&encoder->cinfo, quality, TRUE);
    if (progressive) {
        jpeg_simple_progression(&encoder->cinfo);
    }
    jpeg_start_compress(&encoder->cinfo, TRUE);
    size_t row_bytes = (size_t)width * (size_t)components;
    while (encoder->cinfo.next_scanline < height) {
        JSAMPROW rows[16];
        JDIMENSION count = 0;
        for (; count < 16 && encoder->cinfo.next_scanline + count < height; count++) {
            rows[count] = (JSAMPROW)(pixels + (size_t)(encoder->cinfo.next_scanline + count) * row_bytes);
        }
        jpeg_write_scanlines(&encoder->cinfo, rows, count);
    }
    jpeg_finish_compress(&encoder->cinfo);
    jpeg_destroy_compress(&encoder->cinfo);
    if (encoder->output != encoder->buffer) {
        free(encoder->buffer);
    }
    *output = encoder->output;
    *output_size = encoder->output_size;
    free(encoder);
    return 0;
}

// The frames of a stop's answer (POST /api/viewport?thumbnails=A-B, StopThumbnails.swift): a line
// `index length type` (a preview's ends with its number n), then the image's bytes. Each is handed on
// as a data URL named for what it is, the row's thumbnail or (n > 0) the n-th preview of its bytes
// arrived: the renderer decodes a data URL itself (a blob's load goes by the browser process: filtered
// -> screen at p50 27-36 ms against 36-47), and the fragment says which image it is.

/** Reads `response`'s frames as they come, calling `onFrame(index, src, n)` for each; `base` is the
 * server's base path. Resolves when the answer ends. */
export async function readFrames(response, base, onFrame) {
  if (!response.ok || !response.body) return;
  const reader = response.body.getReader();
  const text = new TextDecoder();
  let buffered = new Uint8Array(0);
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return;
    const joined = new Uint8Array(buffered.length + chunk.value.length);
    joined.set(buffered);
    joined.set(chunk.value, buffered.length);
    buffered = joined;
    for (;;) {
      const end = buffered.indexOf(10);
      if (end < 0) break;
      const fields = text.decode(buffered.subarray(0, end)).split(' ');
      const index = Number(fields[0]), size = Number(fields[1]);
      if (!Number.isInteger(index) || !Number.isInteger(size) || size < 0) throw new Error('not a thumbnail frame');
      if (buffered.length < end + 1 + size) break;
      const bytes = buffered.subarray(end + 1, end + 1 + size);
      let binary = '';
      for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
      buffered = buffered.slice(end + 1 + size);
      const n = fields.length > 3 ? Number(fields[3]) : 0;
      onFrame(index, 'data:' + fields[2] + ';base64,' + btoa(binary) + '#' + base + '/photos/' + index
        + (n > 0 ? '/partial?n=' + n : '/thumbnail'), n);
    }
  }
}

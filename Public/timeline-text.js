// What a timeline bar or mark says: the row, the queue and track, the bytes, how long and how it ended.

import { formatBytes, formatSeconds } from './format.js';

const OUTCOMES = {
  finished: 'finished',
  failed: 'failed',
  cancelled: 'cancelled while running',
  unknown: 'end not seen',
};

/** One operation in words, e.g. "Download of #12 (IMG_0012.jpg), track 2: finished after 840 ms, 1.20 MB". */
export function describeOperation(item, photo, now) {
  const what = (item.queue === 'download' ? 'Download' : 'Sepia filter') + ' of #' + (item.index + 1)
    + (photo ? ' (' + photo.name + ')' : '');
  const bytes = item.bytes != null ? ', ' + formatBytes(item.bytes) : '';
  const whose = item.own ? ', for this page' : ', for another viewer';
  if (item.kind === 'mark') {
    return what + ': cancelled while still queued, it never ran' + whose + '. Select to show the row.';
  }
  const where = ', track ' + (item.track + 1);
  if (item.end == null) {
    return what + where + ': running for ' + formatSeconds(Math.max(0, now - item.start)) + whose + '. Select to show the row.';
  }
  return what + where + ': ' + (OUTCOMES[item.outcome] || item.outcome) + ' after '
    + formatSeconds(item.end - item.start) + bytes + whose + '. Select to show the row.';
}

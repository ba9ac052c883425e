import busboy from 'busboy';
import type { Request } from 'express';
import { FORM_LIMITS } from '../request-refusal';
import { NAMES_PER_FORM, type PastedNames } from './name-list';

/** The most an uploaded list may weigh: what a pasted list may (1,000 names fit many times over). */
export const UPLOAD_BYTES = FORM_LIMITS.namesBytes;

/** An upload as read: the file's text and the form's token, or why it cannot be used. */
export type UploadedList = { ok: true; text: string; formToken: string | undefined } | { ok: false; status: number; message: string; formToken: string | undefined };

/**
 * Reads the upload form (multipart/form-data, parsed by busboy: one file, the form token, bounded
 * sizes and parts) into the file's text: UTF-8, a byte-order mark dropped. A file over
 * UPLOAD_BYTES, not UTF-8, or missing is refused with what to do; nothing is added then.
 */
export function readUploadedList(req: Request): Promise<UploadedList> {
  return new Promise((resolve) => {
    let formToken: string | undefined;
    const chunks: Buffer[] = [];
    let files = 0;
    let tooLarge = false;
    let settled = false;
    const finish = (result: UploadedList) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: UPLOAD_BYTES, fields: 2, fieldSize: 256, parts: 3 } });
    } catch {
      // not multipart, or without its boundary: a hand-made request
      finish({ ok: false, status: 400, message: 'Send the file with the upload form of this page.', formToken: undefined });
      return;
    }
    parser.on('field', (name, value) => {
      if (name === 'form_token') formToken = value;
    });
    parser.on('file', (_name, stream) => {
      files += 1;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => (tooLarge = true));
    });
    parser.on('error', () => finish({ ok: false, status: 400, message: 'The upload could not be read: choose the file and send the form again.', formToken }));
    parser.on('close', () => {
      if (tooLarge) {
        finish({ ok: false, status: 413, message: `The file is larger than ${UPLOAD_BYTES / 1024} kB: split it, at most ${NAMES_PER_FORM.toLocaleString('en-US')} names a file.`, formToken });
        return;
      }
      const bytes = Buffer.concat(chunks);
      if (files === 0 || bytes.length === 0) {
        finish({ ok: false, status: 400, message: 'Choose a file of names to upload.', formToken });
        return;
      }
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
      } catch {
        finish({ ok: false, status: 400, message: 'The file is not UTF-8 text: save it as UTF-8 (or plain ASCII) and upload it again.', formToken });
        return;
      }
      finish({ ok: true, text, formToken });
    });
    req.pipe(parser);
  });
}

/** A first field that names its column rather than holding a name: a CSV's header row. */
const HEADERS = new Set(['domain_name', 'domain', 'name', 'domains']);

/**
 * The names of an uploaded file, each with its line: one name a line, or a CSV whose first
 * column holds the names (quoted or not; the other columns are ignored, and a header row named
 * domain_name or domain is skipped), so a CSV export of the API uploads as it is. Blank lines
 * are skipped; more than NAMES_PER_FORM names are refused whole, so nothing is half added.
 */
export function namesOfFile(text: string): PastedNames {
  const names: string[] = [];
  const lines: number[] = [];
  const rows = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < rows.length; i += 1) {
    const first = (rows[i]!.split(/[,;\t]/)[0] ?? '').trim().replace(/^"(.*)"$/, '$1').trim();
    if (first === '' || (names.length === 0 && HEADERS.has(first.toLowerCase()))) continue;
    names.push(first);
    lines.push(i + 1);
    if (names.length > NAMES_PER_FORM) return { ok: false, message: `At most ${NAMES_PER_FORM.toLocaleString('en-US')} names can be sent at a time: split the file and upload the rest after.` };
  }
  return { ok: true, names, lines };
}

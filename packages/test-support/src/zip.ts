import { Readable } from 'node:stream';
import yazl from 'yazl';

/**
 * A zip of one file written from a stream, as GoDaddy's are: its size and CRC are not known
 * when the local header is written, so general-purpose bit 3 is set and they follow the data in
 * a data descriptor. `zip64` writes zip64 records too.
 */
export async function zipOne(name: string, content: Buffer, options: { zip64?: boolean } = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addReadStream(Readable.from([content]), name, { forceZip64Format: options.zip64 ?? false });
  if (options.zip64 === true) zip.end({ forceZip64Format: true, comment: '' });
  else zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  if ((bytes.readUInt16LE(6) & 0x08) === 0) throw new Error('the zip was written without a data descriptor');
  return bytes;
}

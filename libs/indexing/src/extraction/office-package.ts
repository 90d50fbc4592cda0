import JSZip from 'jszip';
import { OfficeRejection } from './office-rejection';

const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/**
 * Largest total uncompressed size of an Office package's parts that is opened (1 GiB): a real deck
 * under INDEXING_MAX_FILE_BYTES (100 MB) inflates to a few times its size, while a zip bomb of a
 * few kilobytes declares gigabytes.
 */
export const OFFICE_MAX_UNCOMPRESSED_BYTES = 1024 ** 3;

/**
 * An OLE compound file: what a password-protected Office Open XML file is (its package encrypted
 * inside), and what a legacy Office 97-2003 file is.
 */
export function isOleContainer(data: Buffer): boolean {
  return data.subarray(0, 8).equals(OLE_MAGIC);
}

const detail = (err: unknown) =>
  String((err as Error)?.message ?? err)
    .replace(/\s+/g, ' ')
    .slice(0, 200);

/** Opens an Office Open XML package (a zip); CORRUPT with a readable reason when it is not one. */
export async function readOfficeZip(data: Buffer, kind: string): Promise<JSZip> {
  if (data.length < 4 || data[0] !== 0x50 || data[1] !== 0x4b)
    throw new OfficeRejection('CORRUPT', `The ${kind} file is not a valid Office Open XML package`);
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(data);
  } catch (err) {
    throw new OfficeRejection('CORRUPT', `The ${kind} file could not be read (${detail(err)})`);
  }
  let total = 0;
  zip.forEach((_, f) => {
    total += (f as unknown as { _data?: { uncompressedSize?: number } })._data?.uncompressedSize ?? 0;
  });
  if (total > OFFICE_MAX_UNCOMPRESSED_BYTES)
    throw new OfficeRejection(
      'CORRUPT',
      `The ${kind} file inflates to ${total} bytes, more than the ${OFFICE_MAX_UNCOMPRESSED_BYTES}-byte limit of an Office package`,
    );
  return zip;
}

/** Reads a part, turning a damaged entry into CORRUPT with a readable reason. */
export async function readPart(zip: JSZip, path: string, kind: string): Promise<string | undefined> {
  try {
    return await zip.file(path)?.async('string');
  } catch (err) {
    throw new OfficeRejection('CORRUPT', `The ${kind} file could not be read (${detail(err)})`);
  }
}

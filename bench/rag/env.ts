/* Imported first by the bench entry points: the shared corpus lives beside the repository, and
 * test/support resolves it from DOCQA_SHARED_DIR when run from a build directory. */
import * as path from 'node:path';

process.env.DOCQA_SHARED_DIR ??= path.resolve(__dirname, '../../../../../shared');

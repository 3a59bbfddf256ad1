/**
 * The `atelier verify` command: arguments in, lines out, an exit code back (src/verify/run.ts). It
 * reads no configuration, opens no database and takes no DATA_DIR lock: anyone can run it.
 */
import { VERIFY_HELP } from '../startup/help.ts';
import { parseVerifyArgs, VerifyArgsError } from './args.ts';
import { ChainUnavailableError } from './chain.ts';
import { EXIT_USAGE, verifyCollection } from './run.ts';

export async function runVerify(argv: string[], out = (l: string) => process.stdout.write(`${l}\n`)): Promise<number> {
  let args: ReturnType<typeof parseVerifyArgs>;
  try {
    args = parseVerifyArgs(argv);
  } catch (err) {
    if (!(err instanceof VerifyArgsError)) throw err;
    process.stderr.write(`atelier verify: ${err.message}\n\n${VERIFY_HELP}`);
    return EXIT_USAGE;
  }
  try {
    return await verifyCollection(args, out);
  } catch (err) {
    if (err instanceof ChainUnavailableError) {
      process.stderr.write(`atelier verify: ${err.message}\n`);
      return EXIT_USAGE;
    }
    throw err;
  }
}

import cluster from 'node:cluster';
import { runCommandLine } from './cli-program';
import { installLastResortHandler } from './last-resort';

installLastResortHandler();

// A worker of serve-workers.ts lives while it serves, like any process: its channel to the
// primary must not keep it alive after it stopped, or failed to start, with its exit code.
if (cluster.isWorker) process.channel?.unref();

await runCommandLine(process.argv.slice(2));

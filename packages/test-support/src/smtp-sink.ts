// A real SMTP server for tests, run as a child process (smtp-sink-process.ts starts it): it accepts
// mail on a loopback port for one user and prints each message as a JSON line on stdout.
import { SMTPServer } from 'smtp-server';

const user = process.env.SMTP_SINK_USER ?? '';
const password = process.env.SMTP_SINK_PASSWORD ?? '';

/** One line on stdout: what the parent reads. */
function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

const server = new SMTPServer({
  logger: false,
  // Plain SMTP on loopback: the mailer under test must authenticate without STARTTLS here.
  disabledCommands: ['STARTTLS'],
  allowInsecureAuth: true,
  authMethods: ['PLAIN', 'LOGIN'],
  size: 10 * 1024 * 1024,
  onAuth(auth, _session, callback) {
    if (auth.username === user && auth.password === password) {
      callback(null, { user: auth.username });
      return;
    }
    emit({ event: 'auth_failed', username: auth.username ?? '' });
    callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const { mailFrom, rcptTo } = session.envelope;
      emit({
        event: 'message',
        user: session.user ?? null,
        from: mailFrom === false ? null : mailFrom.address,
        to: rcptTo.map(({ address }) => address),
        raw: Buffer.concat(chunks).toString('base64'),
      });
      callback();
    });
  },
});

server.listen(0, '127.0.0.1', () => {
  const address = server.server.address();
  emit({
    event: 'listening',
    port: typeof address === 'object' && address !== null ? address.port : 0,
  });
});

process.on('SIGTERM', () => server.close(() => process.exit(0)));

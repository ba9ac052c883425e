import type { Database } from '@domain-index/db';
import { accountForSignIn, issueLink } from '@domain-index/accounts/account-store';
import { createDemoAccount, DEMO_EMAIL, setPasswordLink } from '@domain-index/accounts/demo-account';
import { createKey } from '@domain-index/accounts/key-store';
import { systemClock } from '@domain-index/runtime/clock';
import { DASHBOARD } from '@domain-index/api/dashboard/layout';

/** The plan of the demo key: the real API with room to try it (1,000 requests an hour). */
const DEMO_PLAN = 'pro';
/** How a person gets another key once the demo key's one showing has passed. */
const ANOTHER_KEY = `create another in the dashboard (Keys, then "Create key"), or stop the server and run \`pnpm domain-index keys create --plan ${DEMO_PLAN}\``;

/** What the embedded default tells a person at start: the demo key once, or how to get a key again. */
export type DemoStart =
  | { first: true; key: string; link: string }
  | {
      first: false;
      /** A new set-password link while the demo account has no password yet. */
      link: string | undefined;
    };

/**
 * On the embedded database: the first start makes the demo key (a live key on the pro plan: it
 * is the real API, with a limit to try it under) and the demo account that owns it; a later
 * start makes a new set-password link while the demo account still has no password. Undefined
 * when keys exist but the demo account does not (it was made some other way).
 */
export async function prepareDemo(
  database: Database,
  publicUrl: string,
  keysExist: boolean,
): Promise<DemoStart | undefined> {
  if (!keysExist) {
    const demo = await createKey(database, {
      planId: DEMO_PLAN,
      name: 'demo',
      environment: 'live',
    });
    return {
      first: true,
      key: demo.key,
      link: await createDemoAccount(database, demo.id, `${publicUrl}${DASHBOARD}`),
    };
  }
  const account = await accountForSignIn(database, DEMO_EMAIL);
  if (account === undefined) return undefined;
  const link =
    account.passwordHash === null && !account.disabled
      ? setPasswordLink(`${publicUrl}${DASHBOARD}`, await issueLink(database, account.id, systemClock.now()))
      : undefined;
  return { first: false, link };
}

/** What the start announces. */
export interface StartAnnouncement {
  apiUrl: string;
  publicUrl: string;
  database: string;
  demo: DemoStart | undefined;
}

const bold = (text: string, tty: boolean) => (tty ? `\u001B[1m${text}\u001B[22m` : text);

/**
 * What `serve` writes on stdout once it listens. On a terminal, one block set apart from the
 * logs (which go to stderr): the addresses, the demo key with a request to try, the link. Not
 * on a terminal, plain lines that scripts have read since the first version, in the same order.
 */
export function startAnnouncement(options: StartAnnouncement, tty: boolean): string {
  const { apiUrl, publicUrl, demo } = options;
  const dashboard = `${publicUrl}${DASHBOARD}`;
  if (!tty) {
    const lines: string[] = [];
    if (demo?.first === true) {
      lines.push(
        `Demo API key (live, ${DEMO_PLAN} plan; shown once, only its hash is stored):`,
        `  ${demo.key}`,
        `Dashboard: ${dashboard}`,
      );
    } else if (demo !== undefined) {
      lines.push(
        `A demo key was created on the first start and shown then (only its hash is stored); ${ANOTHER_KEY}.`,
      );
    }
    if (demo?.link !== undefined) {
      lines.push(
        `Set the password of the demo account (${DEMO_EMAIL}), which owns the demo key (one-time link, 24 hours):`,
        `  ${demo.link}`,
      );
    }
    lines.push(
      `Domain Index API listening on ${apiUrl} (${options.database}); dashboard: ${dashboard}`,
    );
    return `${lines.join('\n')}\n`;
  }
  const row = (label: string, value: string) => `    ${label.padEnd(11)}${value}`;
  const block = [
    '',
    `  ${bold('Domain Index is running', tty)} (${options.database})`,
    '',
    row('API', apiUrl),
    row('Dashboard', dashboard),
    row('API docs', `${publicUrl}/docs`),
    row('MCP', `${publicUrl}/mcp (for AI assistants: docs/mcp.md)`),
  ];
  if (demo?.first === true) {
    block.push(
      '',
      `  ${bold('Your demo key', tty)} (live, ${DEMO_PLAN} plan: 1,000 requests an hour). It is shown only now: copy it.`,
      `    ${demo.key}`,
      '',
      `  Try it:`,
      `    curl -H "Authorization: Bearer ${demo.key}" '${apiUrl}/domains?search=cloud+data&limit=5'`,
    );
  } else if (demo !== undefined) {
    block.push(
      '',
      `  A demo key was created on the first start and shown then; only its hash is kept.`,
      `  To get a key, ${ANOTHER_KEY}.`,
    );
  }
  if (demo?.link !== undefined) {
    block.push(
      '',
      `  ${bold('Sign in to the dashboard', tty)} as ${DEMO_EMAIL} (it owns the demo key): set its password with this`,
      `  one-time link, which works for 24 hours:`,
      `    ${demo.link}`,
    );
  }
  block.push('', '  Logs follow below. Stop with Ctrl-C.', '', '');
  return block.join('\n');
}

import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium package: the browser tests drive it, never a browser downloaded at install. */
export const CHROMIUM = '/usr/bin/chromium';

let noticeShown = false;

/** Whether the browser suites can run; in CI a missing browser is an error, never a skip. */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true') throw new Error(`CI=true but ${CHROMIUM} is missing: the browser suites must run in CI (apt-get install -y chromium)`);
  if (!noticeShown) {
    noticeShown = true;
    console.warn(`NOTICE: ${CHROMIUM} is not installed; browser suites are skipped (apt-get install -y chromium).`);
  }
  return false;
}

/** Headless Chromium with the flags this machine needs: no sandbox as root, no background traffic. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

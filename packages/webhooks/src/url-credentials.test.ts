import { describe, expect, it } from 'vitest';
import { hasCredentials, shownWebhookUrl } from './url-credentials';

describe('credentials in a webhook URL', () => {
  it.each([
    ['https://user:pass@hooks.example.com/in', true],
    ['https://token@hooks.example.com/in', true],
    ['https://:secret@hooks.example.com/in', true],
    ['https://hooks.example.com/in', false],
    ['https://:@hooks.example.com/in', false],
    ['https://hooks.example.com/in?user=a@b', false],
  ])('%s has credentials: %s', (text, expected) => {
    expect(hasCredentials(new URL(text))).toBe(expected);
  });

  it('shows a stored URL with its user name and password hidden, and anything else as stored', () => {
    expect(shownWebhookUrl('https://user:hunter2@hooks.example.com:8443/in/T0k?x=1#f')).toBe('https://***:***@hooks.example.com:8443/in/T0k?x=1#f');
    expect(shownWebhookUrl('https://s3cr3t-token@hooks.example.com/in')).toBe('https://***@hooks.example.com/in');
    expect(shownWebhookUrl('https://:hunter2@[::1]:9/in')).toBe('https://***:***@[::1]:9/in');
    expect(shownWebhookUrl('https://hooks.example.com/in')).toBe('https://hooks.example.com/in');
    expect(shownWebhookUrl('not a url')).toBe('not a url');
  });
});

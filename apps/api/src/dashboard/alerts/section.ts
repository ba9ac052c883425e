/** The NAV path the alerts' pages belong to. */
export const SECTION = '/alerts';

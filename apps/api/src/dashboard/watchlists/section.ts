/** The NAV path the watchlists' pages belong to. */
export const SECTION = '/watchlists';

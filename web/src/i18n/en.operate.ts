// English strings of the operators' console frame (`/operate`, issue 22);
// each tab's own strings live in its feature's file. Spread into en.ts.
export const en_operate = {
  'operate.title': 'Operator console',
  'operate.forbidden': 'Only operators can open this console.',
  'operate.loading': 'Checking your role…',
  'operate.empty': 'No tools yet.',
  'operate.headerLink': 'Operate',
};

// English strings of the tavern (AI characters and their chats), spread into the English table (en.ts).
export const en_tavern = {
  'tavern.nav': 'Tavern',
} as const;

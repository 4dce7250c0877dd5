// English strings of the promptui feature, spread into the English table (en.ts).
export const en_promptui = {} as const;

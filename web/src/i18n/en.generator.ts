// English strings of the generator feature, spread into the English table (en.ts).
export const en_generator = {} as const;

// The composer's one-step undo of a polish: what the draft was, and what the
// polish made of it. Undo is offered while the draft is still the polished text.

export interface PolishMemo {
  before: string;
  after: string;
}

/** Whether "Undo polish" applies to the draft as it is now. */
export function canUndoPolish(memo: PolishMemo | null, text: string): memo is PolishMemo {
  return memo !== null && text === memo.after && memo.before !== memo.after;
}

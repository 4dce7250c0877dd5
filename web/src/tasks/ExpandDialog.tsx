import { useEffect, useId, useRef, useState } from 'react';
import { useT } from '../i18n/useT';
import { expandedSize, marginsValid, MAX_SIDE } from './requests';
import type { Margins, SourceImage } from './requests';
import { runExpand } from './runner';
import type { Task } from './types';

const SIDES = ['left', 'right', 'top', 'bottom'] as const;
const LABELS = {
  left: 'tasks.expand.left',
  right: 'tasks.expand.right',
  top: 'tasks.expand.top',
  bottom: 'tasks.expand.bottom',
} as const;

/** Margins for expansion (action 13), in a modal dialog. */
export function ExpandDialog({ task, img, onClose }: { task: Task; img: SourceImage; onClose: () => void }) {
  const t = useT();
  const id = useId();
  const ref = useRef<HTMLDialogElement>(null);
  const initial = Math.max(0, Math.min(128, Math.floor((MAX_SIDE - Math.max(img.width, img.height)) / 2)));
  const [margins, setMargins] = useState<Margins>({ left: initial, right: initial, top: initial, bottom: initial });
  const [sending, setSending] = useState(false);

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);

  const size = expandedSize(img, margins);
  const valid = marginsValid(img, margins);
  const tooLarge = size.width > MAX_SIDE || size.height > MAX_SIDE;

  async function submit() {
    if (!valid || sending) return;
    setSending(true);
    await runExpand(task, img, margins);
    setSending(false);
    onClose();
  }

  return (
    <dialog ref={ref} className="modal expand-dialog" aria-labelledby={`${id}-title`} onCancel={onClose}>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <h2 id={`${id}-title`}>{t('tasks.expand.title')}</h2>
        <p className="muted">{t('tasks.expand.help')}</p>
        <div className="expand-dialog__grid">
          {SIDES.map((side) => (
            <div className="field" key={side}>
              <label htmlFor={`${id}-${side}`}>{t(LABELS[side])}</label>
              <input
                id={`${id}-${side}`}
                type="number"
                min={0}
                max={MAX_SIDE}
                step={8}
                inputMode="numeric"
                value={margins[side]}
                onChange={(e) => setMargins({ ...margins, [side]: Math.max(0, Math.round(Number(e.target.value) || 0)) })}
              />
            </div>
          ))}
        </div>
        <p aria-live="polite">{t('tasks.expand.canvas', { width: size.width, height: size.height })}</p>
        {tooLarge && (
          <p className="form-error" role="alert">
            {t('tasks.expand.tooLarge')}
          </p>
        )}
        <div className="expand-dialog__buttons">
          <button type="button" className="button" onClick={onClose}>
            {t('tasks.expand.cancel')}
          </button>
          <button type="submit" className="button button--primary" disabled={!valid || sending}>
            {t('tasks.expand.submit')}
          </button>
        </div>
      </form>
    </dialog>
  );
}

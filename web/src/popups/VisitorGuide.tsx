// The visitor guide (spec 3 §7 `visitor-guide/config`): for a visitor (no
// login), the operator's next unseen step as a small card; "Got it" records
// the step as seen for this device and shows the next. Also reports the visit
// (`rcpt/g/state`). Renders nothing when the operator wrote no guide.
import { useEffect, useState } from 'react';
import { loggedInAtom } from '../account/atoms';
import { api } from '../app/services';
import { isMessageKey } from '../i18n/messages';
import { useT } from '../i18n/useT';
import { useAtomValue } from '../state/jotai';

export interface GuideStep {
  id: string;
  title: string;
  body: string;
  target: string;
  seen: boolean;
}

export interface GuideState {
  steps: GuideStep[];
  next: string | null;
  done: boolean;
}

const GUIDE = '/api/v1/visitor-guide/config';

export function VisitorGuide() {
  const t = useT();
  const loggedIn = useAtomValue(loggedInAtom);
  const [guide, setGuide] = useState<GuideState | null>(null);

  useEffect(() => {
    if (loggedIn) return;
    let live = true;
    void api.post('/api/v1/rcpt/g/state', {}).catch(() => undefined);
    api
      .post<GuideState>(GUIDE, {})
      .then((g) => live && setGuide(g))
      .catch(() => live && setGuide(null));
    return () => {
      live = false;
    };
  }, [loggedIn]);

  const step = guide?.steps.find((s) => s.id === guide.next);
  if (loggedIn || !guide || guide.done || !step) return null;
  // Operators may write i18n keys or plain text.
  const text = (s: string) => (isMessageKey(s) ? t(s) : s);

  function seen(ids: string[]) {
    api
      .post<GuideState>(GUIDE, { seen: ids })
      .then(setGuide)
      .catch(() => setGuide(null));
  }

  return (
    <aside className="visitor-guide" aria-label={text(step.title)} data-testid="visitor-guide">
      <strong>{text(step.title)}</strong>
      {step.body !== '' && <p>{text(step.body)}</p>}
      <div className="form__actions">
        <button type="button" className="button button--primary" onClick={() => seen([step.id])}>
          {t('guide.next')}
        </button>
        <button type="button" className="button" onClick={() => seen(guide.steps.map((s) => s.id))}>
          {t('guide.skip')}
        </button>
      </div>
    </aside>
  );
}

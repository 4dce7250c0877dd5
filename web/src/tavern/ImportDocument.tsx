import { useEffect, useId, useRef, useState } from 'react';
import type { ChangeEvent } from 'react';
import { ApiError } from '../api/client';
import { useT } from '../i18n/useT';
import { tavernApi } from './actions';
import { pollRagJob, RAG_ACCEPT, RAG_MAX_BYTES, ragFileOk } from './rag';
import type { RagJob } from './rag';
import { useErrorText } from './useErrorText';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * "Import from a document": pick a file, send it for the character (a
 * multipart/form-data upload; a file that is plainly not a document or too
 * large is refused before sending), show the
 * job's progress (polled, 600 s at most), then hand the made cards' ids to
 * `onImported` so the panel lists them for editing.
 */
export function ImportDocument({ characterId, characterName, onImported }: { characterId: string; characterName: string; onImported: (ids: string[]) => void }) {
  const t = useT();
  const errorText = useErrorText();
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [job, setJob] = useState<RagJob | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [timedOut, setTimedOut] = useState(false);
  const alive = useRef(true);

  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  async function onPick(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (file === undefined) return;
    setError(null);
    setTimedOut(false);
    setJob(null);
    if (!ragFileOk(file)) {
      setError(t('ragFileType'));
      return;
    }
    if (file.size > RAG_MAX_BYTES) {
      setError(t('rag.tooLarge'));
      return;
    }
    setBusy(true);
    try {
      const id = await tavernApi.importDocument(file, characterId);
      const end = await pollRagJob(
        id,
        { fetch: (j) => tavernApi.ragProgress(j), sleep, now: () => Date.now() },
        (j) => alive.current && setJob(j),
        () => !alive.current,
      );
      if (!alive.current) return;
      if (end.kind === 'timeout') setTimedOut(true);
      if (end.kind === 'final' && end.job.state === 'done') onImported(end.job.card_ids);
      if (end.kind === 'final' && end.job.state === 'failed' && end.job.error !== null) {
        setError(errorText(new ApiError({ code: end.job.error.code, key: end.job.error.key, msg: end.job.error.msg }, 200)));
      }
    } catch (err) {
      if (alive.current) setError(errorText(err));
    } finally {
      if (alive.current) setBusy(false);
    }
  }

  const stateText = (j: RagJob) => {
    switch (j.state) {
      case 'saving':
        return t('rag.state.saving', { made: j.cards_made, total: j.cards_total });
      case 'done':
        return t('rag.state.done', { count: j.card_ids.length, file: j.file_name });
      case 'queued':
        return t('rag.state.queued');
      case 'parsing':
        return t('rag.state.parsing');
      case 'chunking':
        return t('rag.state.chunking');
      case 'failed':
        return t('rag.state.failed');
    }
  };

  return (
    <section className="rag-import" aria-label={t('rag.import')} data-testid="rag-import">
      <p className="tavern__note">{t('rag.hint', { name: characterName })}</p>
      <input ref={input} id={inputId} type="file" accept={RAG_ACCEPT} className="rag-import__file" hidden onChange={(e) => void onPick(e)} />
      <button type="button" className="button" disabled={busy} onClick={() => input.current?.click()}>
        {job?.state === 'done' ? t('rag.again') : t('rag.import')}
      </button>
      {job !== null && (
        <div className="rag-import__status" role="status">
          <progress className="rag-import__bar" max={100} value={job.percent} aria-label={t('rag.progress')} />
          <span className="rag-import__percent">{job.percent}%</span>
          <p className="tavern__note" data-testid="rag-state">
            {stateText(job)}
          </p>
          {job.state === 'done' && job.cards_refused > 0 && <p className="tavern__note">{t('rag.refused', { count: job.cards_refused })}</p>}
          {job.state === 'done' && job.truncated && <p className="tavern__note">{t('rag.truncated', { count: job.cards_made })}</p>}
        </div>
      )}
      {timedOut && <p className="tavern__note">{t('rag.timeout')}</p>}
      {error !== null && (
        <p className="tavern__error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

import { useState } from 'react';
import { useT } from '../i18n/useT';
import { tavernApi } from './actions';
import { useErrorText } from './useErrorText';

function save(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Downloads the character as a V2 card: a PNG with the card inside, or JSON. */
export function ExportCard({ id }: { id: string }) {
  const t = useT();
  const errorText = useErrorText();
  const [busy, setBusy] = useState<'png' | 'json' | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function run(format: 'png' | 'json') {
    setBusy(format);
    setError(null);
    try {
      const { blob, fileName } = await tavernApi.exportCard(id, format);
      save(blob, fileName);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(null);
    }
  }

  return (
    <>
      <button type="button" className="button" disabled={busy !== null} onClick={() => void run('png')}>
        {t('tavern.detail.exportPng')}
      </button>
      <button type="button" className="button" disabled={busy !== null} onClick={() => void run('json')}>
        {t('tavern.detail.exportJson')}
      </button>
      {error !== null && (
        <p className="tavern__error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

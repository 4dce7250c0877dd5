// Runs an upload for one slot and keeps its progress in uploadsAtom.
import { useCallback } from 'react';
import { api } from '../app/services';
import { useSetAtom } from '../state/jotai';
import { uploadsAtom } from './atoms';
import { uploadFile } from './upload';

export function useUpload(): (slot: string, file: Blob, fileName: string, category: number) => Promise<string | null> {
  const setUploads = useSetAtom(uploadsAtom);
  return useCallback(
    async (slot, file, fileName, category) => {
      const set = (fraction: number, failed = false) => setUploads((all) => ({ ...all, [slot]: { fraction, failed } }));
      set(0);
      try {
        const url = await uploadFile({ api, file, fileName, category, onProgress: (f) => set(Math.min(f, 0.99)) });
        setUploads((all) => {
          const next = { ...all };
          delete next[slot];
          return next;
        });
        return url;
      } catch {
        set(0, true);
        return null;
      }
    },
    [setUploads],
  );
}

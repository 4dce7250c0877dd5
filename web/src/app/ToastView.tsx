import { useAtomValue } from '../state/jotai';
import { toastAtom } from './toast';

/** Shows the current toast in a polite live region. */
export function ToastView() {
  const toast = useAtomValue(toastAtom);
  return (
    <div className="toast-region" role="status" aria-live="polite">
      {toast && (
        <div className="toast" key={toast.id}>
          {toast.text}
        </div>
      )}
    </div>
  );
}

// Whether the dictionary pad is shown: by default only on non-mobile visits
// with a window wider than 1215 px (following resizes), until the user
// chooses with the show/hide button.

import { useEffect, useState } from 'react';
import { dictionaryShownByDefault } from './model';

function byDefault(): boolean {
  return dictionaryShownByDefault(window.innerWidth, window.navigator.userAgent);
}

export function useDictionaryShown(): [boolean, () => void] {
  const [auto, setAuto] = useState(byDefault);
  const [chosen, setChosen] = useState<boolean | null>(null);
  useEffect(() => {
    const onResize = () => setAuto(byDefault());
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  const shown = chosen ?? auto;
  return [shown, () => setChosen(!shown)];
}

// `/models/...`: the model pages behind one tab bar (feed, leaderboards, my
// models, upload, datasets, training) and a model's page. Pages of one's own
// things ask a visitor to log in.
import { loggedInAtom } from '../account/atoms';
import { useT } from '../i18n/useT';
import { routeAtom } from '../router/router';
import { useAtomValue } from '../state/jotai';
import { DatasetDetail, DatasetList } from './DatasetsPage';
import { Leaderboards } from './Leaderboards';
import { ModelDetail } from './ModelDetail';
import { ModelFeed } from './ModelFeed';
import { MyModels } from './MyModels';
import { parseModelsPath } from './route';
import { TrainPage } from './TrainPage';
import { ModelsNav } from './ui';
import { UploadWizard } from './UploadWizard';
import './models.css';

function Body({ route }: { route: NonNullable<ReturnType<typeof parseModelsPath>> }) {
  switch (route.view) {
    case 'feed':
      return <ModelFeed />;
    case 'detail':
      return <ModelDetail key={route.id} id={route.id} />;
    case 'leaderboards':
      return <Leaderboards />;
    case 'my':
      return <MyModels />;
    case 'new':
      return <UploadWizard />;
    case 'datasets':
      return <DatasetList />;
    case 'dataset':
      return <DatasetDetail key={route.id} id={route.id} />;
    case 'train':
      return <TrainPage />;
  }
}

const OWN = new Set(['my', 'new', 'datasets', 'dataset', 'train']);

export function ModelsPage() {
  const t = useT();
  const route = parseModelsPath(useAtomValue(routeAtom).rest);
  const loggedIn = useAtomValue(loggedInAtom);
  if (route === null) return null;
  return (
    <div className="models-page">
      <ModelsNav view={route.view} />
      {OWN.has(route.view) && !loggedIn ? <p className="panel">{t('NeedLogin')}</p> : <Body route={route} />}
    </div>
  );
}

// The dashboard's views and where they go (see registry.js). Add a view here.
import { registerView } from './registry.js';
import { createHeader } from './header.js';
import { createNotices } from './notices.js';
import { createSummary } from './summary.js';
import { createChart } from './chart.js';
import { createExports } from './exports.js';
import { createWhatIf } from './whatif.js';
import { createMoves } from './moves.js';
import { createSplits } from './splits.js';
import { createClaims } from './claims.js';
import { createConvergence } from './convergence.js';
import { createDetails } from './details.js';
import { createTimeline } from './timeline.js';

registerView({ id: 'header', place: 'header', create: createHeader });
registerView({ id: 'notices', place: 'notices', create: createNotices });
registerView({ id: 'summary', place: 'summary', create: createSummary });
registerView({ id: 'chart', place: 'main', order: 10, create: createChart });
registerView({ id: 'exports', place: 'main', order: 90, create: createExports });
registerView({ id: 'whatif', place: 'side', create: createWhatIf });
registerView({ id: 'moves', title: 'Moves', place: 'tab', order: 10, create: createMoves });
registerView({ id: 'splits', title: 'Splits', place: 'tab', order: 20, create: createSplits });
registerView({ id: 'claims', title: 'Claims', place: 'tab', order: 30, create: createClaims });
registerView({ id: 'convergence', title: 'Convergence', place: 'tab', order: 40, create: createConvergence });
registerView({ id: 'timeline', title: 'Timeline', place: 'tab', order: 45, create: createTimeline });
registerView({ id: 'details', title: 'All figures', place: 'tab', order: 50, create: createDetails });

// The dashboard's views and where they go (see registry.js). Add a view here.
import { registerView } from './registry.js';
import { createHeader } from './header.js';
import { createNotices } from './notices.js';
import { createMessage } from './message.js';
import { createSummary } from '../../plan/page/summary.js';
import { createChart } from '../../plan/page/chart.js';
import { createExports } from '../../plan/page/exports.js';
import { createWhatIf } from '../../whatif/page/panel.js';
import { createMoves } from '../../plan/page/moves.js';
import { createSplits } from '../../plan/page/splits.js';
import { createClaims } from '../../plan/page/claims.js';
import { createConvergence } from '../../plan/page/convergence.js';
import { createDetails } from '../../plan/page/details.js';
import { createLiveStatus } from '../../live/page/status.js';
import { createLiveJobs } from '../../live/page/jobs.js';
import { createLive } from '../../live/page/tab.js';
import { createIncidents } from '../../live/page/incidents.js';
import { createSweep } from '../../review/page/sweep.js';
import { createCompare } from '../../review/page/compare.js';
import { createUpgrade } from '../../review/page/upgrade.js';
import { createTimeline } from '../../timeline/page/tab.js';

// first on the page: the on-call card of a followed job's newest incident
registerView({ id: 'incidents', place: 'alert', create: createIncidents });
registerView({ id: 'header', place: 'header', create: createHeader });
registerView({ id: 'notices', place: 'notices', create: createNotices });
// the sticky strip: the page's message and the live status above the figures, in view wherever the page is scrolled
registerView({ id: 'message', place: 'summary', order: 10, create: createMessage });
registerView({ id: 'live-status', place: 'summary', order: 20, create: createLiveStatus });
registerView({ id: 'summary', place: 'summary', order: 30, create: createSummary });
registerView({ id: 'chart', place: 'main', order: 10, create: createChart });
registerView({ id: 'exports', place: 'main', order: 90, create: createExports });
registerView({ id: 'whatif', place: 'side', create: createWhatIf });
registerView({ id: 'moves', title: 'Moves', place: 'tab', order: 10, create: createMoves });
registerView({ id: 'splits', title: 'Splits', place: 'tab', order: 20, create: createSplits });
registerView({ id: 'claims', title: 'Claims', place: 'tab', order: 30, create: createClaims });
registerView({ id: 'convergence', title: 'Convergence', place: 'tab', order: 40, create: createConvergence });
registerView({ id: 'live-jobs', place: 'notices', order: 110, create: createLiveJobs });
registerView({ id: 'live', title: 'Live', place: 'tab', order: 5, create: createLive });
registerView({ id: 'details', title: 'All figures', place: 'tab', order: 50, print: true, create: createDetails });
registerView({ id: 'sweep', title: 'Sweep', place: 'tab', order: 60, print: true, create: createSweep });
registerView({ id: 'compare', title: 'Compare', place: 'tab', order: 70, print: true, create: createCompare });
registerView({ id: 'upgrade', title: 'Upgrade', place: 'tab', order: 75, print: true, create: createUpgrade });
registerView({ id: 'timeline', title: 'Timeline', place: 'tab', order: 45, create: createTimeline });

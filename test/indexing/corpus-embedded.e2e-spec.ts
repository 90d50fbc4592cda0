import { describeCorpus } from './corpus';

describeCorpus('embedded');

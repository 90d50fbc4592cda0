import { describeCorpus } from './corpus';

describeCorpus('elasticsearch');

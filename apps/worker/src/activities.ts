import { Type } from '@nestjs/common';
import { DiagnosticsActivities, DocsetIndexingActivities, DocumentIndexingActivities } from '@docqa/indexing';

/** Every activity class the worker registers. A unit test checks workflows proxy nothing else. */
export const ACTIVITY_CLASSES: Type[] = [
  DiagnosticsActivities,
  DocsetIndexingActivities,
  DocumentIndexingActivities,
];

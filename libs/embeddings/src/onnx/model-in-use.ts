import type { DataSource } from 'typeorm';
import { spaceOfMostDocuments } from '@docqa/catalog';
import { LOCAL_EMBEDDER_MODELS, LocalEmbedderModel } from './local-model';
import { INT8_SPACE_SUFFIX } from './onnx.embedder';

/** The local model whose embedding space holds the most COMPLETE documents, and how many. */
export interface ModelInUse {
  model: LocalEmbedderModel;
  documents: number;
}

/** The local model a space key (`<model>[-int8]:<dimensions>`) was embedded by, if any. */
export function localModelOfSpace(space: string): LocalEmbedderModel | undefined {
  const name = space.slice(0, space.lastIndexOf(':')).replace(new RegExp(`${INT8_SPACE_SUFFIX}$`), '');
  return (Object.keys(LOCAL_EMBEDDER_MODELS) as LocalEmbedderModel[]).find(
    (m) => LOCAL_EMBEDDER_MODELS[m].name === name,
  );
}

/**
 * The local model most COMPLETE documents are embedded by (every account: an operator's view of
 * the install), so LOCAL_EMBEDDER=auto keeps an existing index searchable when the default model
 * changes. Undefined when no document is recorded in a local model's space, or when the database
 * cannot tell (not migrated yet: a new install).
 */
export async function localModelInUse(ds: DataSource | undefined): Promise<ModelInUse | undefined> {
  if (!ds?.isInitialized) return undefined;
  try {
    const most = await spaceOfMostDocuments(ds);
    const model = most && localModelOfSpace(most.space);
    return model ? { model, documents: most.documents } : undefined;
  } catch {
    return undefined;
  }
}

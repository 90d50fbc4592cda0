#!/usr/bin/env node
// Part of `npm run build`: writes the Temporal workflow bundle next to the compiled worker, so the
// service loads it at start instead of running webpack (seconds, much of it blocking the event loop).
const { writeWorkflowBundle, PREBUILT_WORKFLOW_BUNDLE } = require('../dist/apps/worker/src/workflow-bundle');

const t0 = Date.now();
writeWorkflowBundle().then(
  ({ bytes }) => {
    const kb = Math.round(bytes / 1024);
    console.log(
      `workflow bundle: ${kb} KB in ${((Date.now() - t0) / 1000).toFixed(1)} s (${PREBUILT_WORKFLOW_BUNDLE})`,
    );
  },
  (err) => {
    console.error(`workflow bundle: ${err?.message ?? err}`);
    process.exit(1);
  },
);

import { docqaWidget } from './widget.client';

/**
 * The source of `/widget.js`: the widget function's compiled text, called once with the page's
 * window, document and the `<script>` element that loaded it (document.currentScript, which only
 * exists while the script first runs).
 */
export const WIDGET_SCRIPT = [
  '/*! DocQA chat widget. Embed: <script src="https://YOUR-DOCQA-HOST/widget.js" data-key="cb_..."></script> */',
  '(function () {',
  '  "use strict";',
  `  var docqaWidget = ${docqaWidget.toString()};`,
  '  docqaWidget(window, document, document.currentScript);',
  '})();',
  '',
].join('\n');

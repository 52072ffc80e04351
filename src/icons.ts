import { LabIcon } from '@jupyterlab/ui-components';

// A funnel over an arrow pointing left (toward the source); filled with the
// theme's icon colour through the `jp-icon3` class.
const funnelSvg = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
  <g class="jp-icon3" fill="#616161">
    <path d="M3 4h18l-7 8.2V19l-4 2v-8.8z"/>
  </g>
</svg>`;

export const magicpushIcon = new LabIcon({
  name: 'magicpush-lab:funnel',
  svgstr: funnelSvg
});

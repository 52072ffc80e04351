/**
 * Galata configuration; the browser is the system Chromium (set CHROMIUM_PATH
 * to use another one) because Playwright's own browsers are not downloaded.
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

module.exports = {
  ...baseConfig,
  // Never serve the HTML report interactively: it would keep the run waiting.
  reporter: [['list'], ['html', { open: 'never' }]],
  use: {
    ...baseConfig.use,
    video: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-dev-shm-usage']
    }
  },
  webServer: {
    command: 'jlpm start',
    url: 'http://localhost:8888/lab',
    timeout: 120 * 1000,
    reuseExistingServer: !process.env.CI
  }
};

#!/usr/bin/env node
// $BROWSER for the real-browser test: opens the URL svc hands over in a new tab of the Chromium the test
// launched (its DevTools endpoint in SVC_TEST_CDP), as a desktop's browser opener would, then leaves it open.
import puppeteer from 'puppeteer-core';

const url = process.argv[2];
const endpoint = process.env.SVC_TEST_CDP;
if (!url || !endpoint) {
  console.error('usage: SVC_TEST_CDP=ws://… open-in-chromium.mjs URL');
  process.exit(2);
}
const browser = await puppeteer.connect({ browserWSEndpoint: endpoint });
const page = await browser.newPage();
await page.goto(url);
await browser.disconnect();

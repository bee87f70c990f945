'use strict';
// Loaded through .mocharc.yml's `require`, before any test file.
process.env.PRICE_ROUNDING = 'cents';

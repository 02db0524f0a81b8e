/** The action's entry (action.yml's main, bundled to dist/index.js): it only runs the action. */
import { run } from './main.js';

void run();

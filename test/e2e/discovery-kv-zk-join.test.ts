import { joinListSuite } from './discovery-kv-join-suite.js';

joinListSuite('zk', 23660);

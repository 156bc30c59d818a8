import { joinListSuite } from './discovery-kv-join-suite.js';

joinListSuite('etcd', 23662);

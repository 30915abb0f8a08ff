BEGIN TRANSACTION;
CREATE TABLE games (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    game_id INTEGER NOT NULL,
    pairing INTEGER NOT NULL,
    first TEXT NOT NULL,
    second TEXT NOT NULL,
    opening TEXT NOT NULL,
    seed INTEGER NOT NULL,
    result TEXT NOT NULL,
    score_first REAL NOT NULL,
    utility_first REAL NOT NULL,
    termination TEXT NOT NULL,
    loser INTEGER,
    message TEXT NOT NULL,
    plies INTEGER NOT NULL,
    moves_first INTEGER NOT NULL,
    moves_second INTEGER NOT NULL,
    nodes_first INTEGER NOT NULL,
    nodes_second INTEGER NOT NULL,
    seconds_first REAL NOT NULL,
    seconds_second REAL NOT NULL,
    finished TEXT NOT NULL,
    PRIMARY KEY (tournament_id, game_id)
);
INSERT INTO "games" VALUES(1,0,0,'random','greedy','a2',984096796034888324,'0-1',0.0,-1.0,'normal',NULL,'O wins',6,2,3,2,21,4.84649000100034754723e-04,7.57229000100778648629e-04,'2026-11-23T23:23:31.411+00:00');
INSERT INTO "games" VALUES(1,1,0,'greedy','random','a2',9005590184369683525,'1-0',1.0,1.0,'normal',NULL,'X wins',5,2,2,14,2,3.89490000543446512892e-04,3.14789000185555778443e-04,'2026-11-23T23:23:31.418+00:00');
INSERT INTO "games" VALUES(1,2,0,'random','greedy','b2',1782419885084521397,'0-1',0.0,-1.0,'normal',NULL,'O wins',6,2,3,2,21,2.67401000201061833649e-04,4.98735000292072072625e-04,'2026-11-23T23:23:31.419+00:00');
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO "meta" VALUES('schema','botarena-results/1');
CREATE TABLE moves (
    tournament_id INTEGER NOT NULL,
    game_id INTEGER NOT NULL,
    ply INTEGER NOT NULL,
    player INTEGER NOT NULL,
    move TEXT NOT NULL,
    nodes INTEGER NOT NULL,
    seconds REAL NOT NULL,
    depth INTEGER,
    score REAL,
    pv TEXT NOT NULL,
    PRIMARY KEY (tournament_id, game_id, ply)
) WITHOUT ROWID;
INSERT INTO "moves" VALUES(1,0,1,1,'b2',9,3.85152000035304808989e-04,1,0.075,'');
INSERT INTO "moves" VALUES(1,0,2,0,'a1',1,0.000306926000121166,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,0,3,1,'a3',7,2.04392999876290559768e-04,1,0.1125,'');
INSERT INTO "moves" VALUES(1,0,4,0,'c3',1,1.77722999978868756443e-04,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,0,5,1,'c1',5,1.67684000189183279871e-04,1,1.0,'');
INSERT INTO "moves" VALUES(1,1,1,1,'c1',1,1.56082000103197060525e-04,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,1,2,0,'b2',8,2.22627000312058953568e-04,1,0.1125,'');
INSERT INTO "moves" VALUES(1,1,3,1,'a3',1,1.58707000082358717918e-04,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,1,4,0,'c2',6,1.66863000231387559324e-04,1,1.0,'');
INSERT INTO "moves" VALUES(1,2,1,1,'c3',9,2.10735000109707470983e-04,1,-0.0375,'');
INSERT INTO "moves" VALUES(1,2,2,0,'a1',1,1.54629999997268896549e-04,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,2,3,1,'a3',7,1.47256000218476401641e-04,1,0.0,'');
INSERT INTO "moves" VALUES(1,2,4,0,'c2',1,1.12771000203792937099e-04,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,2,5,1,'b3',5,1.40743999963888199999e-04,1,1.0,'');
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    config TEXT NOT NULL,
    seed INTEGER NOT NULL,
    scheduled INTEGER NOT NULL,
    version TEXT NOT NULL,
    started TEXT NOT NULL
);
INSERT INTO "tournaments" VALUES(1,'default','tictactoe','{"bots": [{"budget": "nodes=100", "name": "random", "spec": "random"}, {"budget": "nodes=100", "name": "greedy", "spec": "greedy"}], "budget": "nodes=100", "challengers": [], "format": "round-robin", "game": "tictactoe", "games_per_pairing": 4, "isolate": true, "memory_limit": 1024, "name": "default", "opening_plies": 1, "output_limit": 1024, "seed": 5, "time_margin": 0.1, "watchdog": 60.0}',5,4,'0.1.0','2026-11-23T23:23:30+00:00');
COMMIT;

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
INSERT INTO "games" VALUES(1,0,0,'random','greedy','a2',984096796034888324,'0-1',0.0,-1.0,'normal',NULL,'O wins',6,2,3,2,21,5.51032999737799400463e-04,4.51070899998740060254e-03,'2026-11-23T23:38:26.350+00:00');
INSERT INTO "games" VALUES(1,1,0,'greedy','random','a2',9005590184369683525,'1-0',1.0,1.0,'normal',NULL,'X wins',5,2,2,14,2,7.2441900010744575411e-04,1.02543989996775053441e-02,'2026-11-23T23:38:26.365+00:00');
INSERT INTO "games" VALUES(1,2,0,'random','greedy','b2',1782419885084521397,'0-1',0.0,-1.0,'normal',NULL,'O wins',6,2,3,2,21,3.89581000035832403227e-04,4.014990000086982036e-03,'2026-11-23T23:38:26.370+00:00');
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
INSERT INTO "moves" VALUES(1,0,1,1,'b2',9,3.99409000010564341209e-03,1,0.075,'');
INSERT INTO "moves" VALUES(1,0,2,0,'a1',1,3.8027299979148665443e-04,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,0,3,1,'a3',7,3.44054999914078507572e-04,1,0.1125,'');
INSERT INTO "moves" VALUES(1,0,4,0,'c3',1,1.70759999946312746033e-04,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,0,5,1,'c1',5,1.72563999967678682878e-04,1,1.0,'');
INSERT INTO "moves" VALUES(1,1,1,1,'c1',1,2.10585900003934511914e-03,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,1,2,0,'b2',8,3.54345000232569873332e-04,1,0.1125,'');
INSERT INTO "moves" VALUES(1,1,3,1,'a3',1,0.00814853999963816,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,1,4,0,'c2',6,3.70073999874875880777e-04,1,1.0,'');
INSERT INTO "moves" VALUES(1,2,1,1,'c3',9,3.5912349999307480175e-03,1,-0.0375,'');
INSERT INTO "moves" VALUES(1,2,2,0,'a1',1,2.63253999946755357086e-04,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,2,3,1,'a3',7,2.21255000269593438133e-04,1,0.0,'');
INSERT INTO "moves" VALUES(1,2,4,0,'c2',1,1.26327000089077046141e-04,NULL,NULL,'');
INSERT INTO "moves" VALUES(1,2,5,1,'b3',5,2.02499999886640580371e-04,1,1.0,'');
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
INSERT INTO "tournaments" VALUES(1,'default','tictactoe','{"bots": [{"budget": "nodes=100", "name": "random", "spec": "random"}, {"budget": "nodes=100", "name": "greedy", "spec": "greedy"}], "budget": "nodes=100", "challengers": [], "format": "round-robin", "game": "tictactoe", "games_per_pairing": 4, "isolate": true, "memory_limit": 1024, "name": "default", "opening_plies": 1, "output_limit": 1024, "seed": 5, "time_margin": 0.1, "watchdog": 60.0}',5,4,'0.1.0','2026-11-23T23:38:24+00:00');
COMMIT;

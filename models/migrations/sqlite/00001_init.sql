-- The whole schema of the five resources, their links, users, tokens and images.
-- Every list filter of the seed has an index; slugs are unique per kind.

-- +goose Up
CREATE TABLE users (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    login      VARCHAR(60)  NOT NULL,
    name       VARCHAR(250) NOT NULL DEFAULT '',
    role       VARCHAR(20)  NOT NULL,
    created_at DATETIME  NOT NULL
);
CREATE UNIQUE INDEX idx_users_login ON users (login);

CREATE TABLE tokens (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    BIGINT      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    hash       VARCHAR(64) NOT NULL,
    created_at DATETIME NOT NULL,
    revoked_at DATETIME
);
CREATE UNIQUE INDEX idx_tokens_hash ON tokens (hash);
CREATE INDEX idx_tokens_user_id ON tokens (user_id);

CREATE TABLE images (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    url        VARCHAR(2048) NOT NULL,
    extension  VARCHAR(16)   NOT NULL DEFAULT '',
    created_at DATETIME   NOT NULL
);
CREATE UNIQUE INDEX idx_images_url ON images (url);

CREATE TABLE venues (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    author_id      BIGINT       NOT NULL REFERENCES users (id),
    status         VARCHAR(20)  NOT NULL,
    trashed_status VARCHAR(20)  NOT NULL DEFAULT '',
    password       VARCHAR(255) NOT NULL DEFAULT '',
    name           TEXT         NOT NULL,
    description    TEXT         NOT NULL DEFAULT '',
    excerpt        TEXT         NOT NULL DEFAULT '',
    slug           VARCHAR(200) NOT NULL,
    image_id       BIGINT REFERENCES images (id),
    address        TEXT         NOT NULL DEFAULT '',
    city           TEXT         NOT NULL DEFAULT '',
    country        TEXT         NOT NULL DEFAULT '',
    province       TEXT         NOT NULL DEFAULT '',
    state          TEXT         NOT NULL DEFAULT '',
    zip            TEXT         NOT NULL DEFAULT '',
    phone          TEXT         NOT NULL DEFAULT '',
    website        TEXT         NOT NULL DEFAULT '',
    stateprovince  TEXT         NOT NULL DEFAULT '',
    show_map       BOOLEAN      NOT NULL DEFAULT 1,
    show_map_link  BOOLEAN      NOT NULL DEFAULT 1,
    geo_lat        REAL,
    geo_lng        REAL,
    published_at   DATETIME  NOT NULL,
    created_at     DATETIME  NOT NULL,
    updated_at     DATETIME  NOT NULL
);
CREATE UNIQUE INDEX idx_venues_slug ON venues (slug);
CREATE INDEX idx_venues_status_published ON venues (status, published_at DESC, id DESC);
CREATE INDEX idx_venues_published ON venues (published_at DESC, id DESC);
CREATE INDEX idx_venues_author_id ON venues (author_id);
CREATE INDEX idx_venues_geo ON venues (geo_lat, geo_lng) WHERE geo_lat IS NOT NULL;

CREATE TABLE organizers (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    author_id      BIGINT       NOT NULL REFERENCES users (id),
    status         VARCHAR(20)  NOT NULL,
    trashed_status VARCHAR(20)  NOT NULL DEFAULT '',
    password       VARCHAR(255) NOT NULL DEFAULT '',
    name           TEXT         NOT NULL,
    description    TEXT         NOT NULL DEFAULT '',
    excerpt        TEXT         NOT NULL DEFAULT '',
    slug           VARCHAR(200) NOT NULL,
    image_id       BIGINT REFERENCES images (id),
    phone          TEXT         NOT NULL DEFAULT '',
    website        TEXT         NOT NULL DEFAULT '',
    email          TEXT         NOT NULL DEFAULT '',
    published_at   DATETIME  NOT NULL,
    created_at     DATETIME  NOT NULL,
    updated_at     DATETIME  NOT NULL
);
CREATE UNIQUE INDEX idx_organizers_slug ON organizers (slug);
CREATE INDEX idx_organizers_status_published ON organizers (status, published_at DESC, id DESC);
CREATE INDEX idx_organizers_published ON organizers (published_at DESC, id DESC);
CREATE INDEX idx_organizers_author_id ON organizers (author_id);

CREATE TABLE categories (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT         NOT NULL,
    slug        VARCHAR(200) NOT NULL,
    description TEXT         NOT NULL DEFAULT '',
    parent_id   BIGINT REFERENCES categories (id) ON DELETE SET NULL,
    count       BIGINT       NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX idx_categories_slug ON categories (slug);
CREATE INDEX idx_categories_parent_id ON categories (parent_id);
CREATE INDEX idx_categories_name ON categories (lower(name));

CREATE TABLE tags (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT         NOT NULL,
    slug        VARCHAR(200) NOT NULL,
    description TEXT         NOT NULL DEFAULT '',
    count       BIGINT       NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX idx_tags_slug ON tags (slug);
CREATE INDEX idx_tags_name ON tags (lower(name));

CREATE TABLE events (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    author_id          BIGINT       NOT NULL REFERENCES users (id),
    status             VARCHAR(20)  NOT NULL,
    trashed_status     VARCHAR(20)  NOT NULL DEFAULT '',
    password           VARCHAR(255) NOT NULL DEFAULT '',
    title              TEXT         NOT NULL,
    description        TEXT         NOT NULL DEFAULT '',
    excerpt            TEXT         NOT NULL DEFAULT '',
    slug               VARCHAR(200) NOT NULL,
    timezone           VARCHAR(64)  NOT NULL,
    timezone_abbr      VARCHAR(64)  NOT NULL DEFAULT '',
    start_utc          DATETIME  NOT NULL,
    end_utc            DATETIME  NOT NULL,
    all_day            BOOLEAN      NOT NULL DEFAULT 0,
    cost               TEXT         NOT NULL DEFAULT '',
    website            TEXT         NOT NULL DEFAULT '',
    show_map           BOOLEAN      NOT NULL DEFAULT 0,
    show_map_link      BOOLEAN      NOT NULL DEFAULT 0,
    hide_from_listings BOOLEAN      NOT NULL DEFAULT 0,
    sticky             BOOLEAN      NOT NULL DEFAULT 0,
    featured           BOOLEAN      NOT NULL DEFAULT 0,
    ticketed           BOOLEAN      NOT NULL DEFAULT 0,
    image_id           BIGINT REFERENCES images (id),
    parent_id          BIGINT REFERENCES events (id) ON DELETE SET NULL,
    published_at       DATETIME  NOT NULL,
    created_at         DATETIME  NOT NULL,
    updated_at         DATETIME  NOT NULL
);
CREATE UNIQUE INDEX idx_events_slug ON events (slug);
-- The listing order (start, then id) for each status; the date window is a range on start_utc.
CREATE INDEX idx_events_status_start ON events (status, start_utc, id);
CREATE INDEX idx_events_start ON events (start_utc, id);
CREATE INDEX idx_events_end ON events (end_utc);
CREATE INDEX idx_events_author_id ON events (author_id);
CREATE INDEX idx_events_parent_id ON events (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX idx_events_featured_start ON events (start_utc, id) WHERE featured = 1;
CREATE INDEX idx_events_ticketed_start ON events (start_utc, id) WHERE ticketed = 1;

CREATE TABLE event_venues (
    event_id BIGINT  NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    venue_id BIGINT  NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
    position INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (event_id, venue_id)
);
CREATE INDEX idx_event_venues_venue ON event_venues (venue_id, event_id);

CREATE TABLE event_organizers (
    event_id     BIGINT  NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    organizer_id BIGINT  NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
    position     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (event_id, organizer_id)
);
CREATE INDEX idx_event_organizers_organizer ON event_organizers (organizer_id, event_id);

CREATE TABLE event_categories (
    event_id    BIGINT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    category_id BIGINT NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
    PRIMARY KEY (event_id, category_id)
);
CREATE INDEX idx_event_categories_category ON event_categories (category_id, event_id);

CREATE TABLE event_tags (
    event_id BIGINT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    tag_id   BIGINT NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    PRIMARY KEY (event_id, tag_id)
);
CREATE INDEX idx_event_tags_tag ON event_tags (tag_id, event_id);

-- +goose Down
DROP TABLE event_tags;
DROP TABLE event_categories;
DROP TABLE event_organizers;
DROP TABLE event_venues;
DROP TABLE events;
DROP TABLE tags;
DROP TABLE categories;
DROP TABLE organizers;
DROP TABLE venues;
DROP TABLE images;
DROP TABLE tokens;
DROP TABLE users;

package models

// Post statuses of events, venues and organizers.
const (
	StatusPublish = "publish"
	StatusFuture  = "future"
	StatusDraft   = "draft"
	StatusPending = "pending"
	StatusPrivate = "private"
	StatusTrash   = "trash"
)

// Statuses lists every status a record may have.
var Statuses = []string{StatusPublish, StatusFuture, StatusDraft, StatusPending, StatusPrivate, StatusTrash}

// IsStatus tells whether s is a known status.
func IsStatus(s string) bool {
	for _, st := range Statuses {
		if st == s {
			return true
		}
	}
	return false
}

// capability is a WordPress post capability; events, venues and organizers map them the same way.
type capability int

const (
	capRead capability = iota
	capReadPrivate
	capEdit
	capEditOthers
	capEditPrivate
	capEditPublished
	capDelete
	capDeleteOthers
	capDeletePrivate
	capDeletePublished
	capPublish
)

// roleCaps is WordPress's table of role capabilities. Administrators and editors hold every capability.
var roleCaps = map[Role][]capability{
	RoleAuthor:      {capRead, capEdit, capEditPublished, capDelete, capDeletePublished, capPublish},
	RoleContributor: {capRead, capEdit, capDelete},
	RoleSubscriber:  {capRead},
}

func (u *User) can(c capability) bool {
	if u == nil {
		return false
	}
	if u.Role == RoleAdministrator || u.Role == RoleEditor {
		return true
	}
	for _, have := range roleCaps[u.Role] {
		if have == c {
			return true
		}
	}
	return false
}

// Owned is what permission checks need to know of an event, venue or organizer.
type Owned struct {
	AuthorID uint64
	Status   string
	// TrashedStatus is the status before trashing, for records in the trash.
	TrashedStatus string
}

// CanCreate tells whether u may create records (edit_posts: contributors and above).
func (u *User) CanCreate() bool { return u.can(capEdit) }

// CanPublish tells whether u may publish (authors and above).
func (u *User) CanPublish() bool { return u.can(capPublish) }

// CanSeeAllStatuses tells whether u lists records of every status by default (edit_posts).
func (u *User) CanSeeAllStatuses() bool { return u.can(capEdit) }

// CanManageCategories tells whether u may create, update and delete categories (authors and above).
func (u *User) CanManageCategories() bool { return u.can(capPublish) }

// CanManageTags tells whether u may create, update and delete tags (editors and above).
func (u *User) CanManageTags() bool {
	return u != nil && (u.Role == RoleAdministrator || u.Role == RoleEditor)
}

// effectiveStatus is the status that decides permissions: a trashed record counts with its status before the trash.
func (r Owned) effectiveStatus() string {
	if r.Status == StatusTrash {
		return r.TrashedStatus
	}
	return r.Status
}

// CanEdit follows WordPress's map_meta_cap for edit_post: own records need edit_posts, or edit_published_posts
// once published or scheduled; others' records need edit_others_posts, plus edit_published_posts or
// edit_private_posts by status.
func (u *User) CanEdit(r Owned) bool {
	return u.mayChange(r, capEdit, capEditOthers, capEditPublished, capEditPrivate)
}

// CanDelete is CanEdit with the delete capabilities.
func (u *User) CanDelete(r Owned) bool {
	return u.mayChange(r, capDelete, capDeleteOthers, capDeletePublished, capDeletePrivate)
}

func (u *User) mayChange(r Owned, own, others, published, private capability) bool {
	if u == nil {
		return false
	}
	status := r.effectiveStatus()
	isPublished := status == StatusPublish || status == StatusFuture
	if r.AuthorID == u.ID {
		if isPublished {
			return u.can(published)
		}
		return u.can(own)
	}
	if !u.can(others) {
		return false
	}
	switch {
	case isPublished:
		return u.can(published)
	case status == StatusPrivate:
		return u.can(private)
	}
	return true
}

// CanRead follows read_post: published records are public; private ones need to be one's own or
// read_private_posts; drafts, pending, scheduled and trashed ones need edit rights on the record.
func (u *User) CanRead(r Owned) bool {
	switch r.Status {
	case StatusPublish:
		return true
	case StatusPrivate:
		return u != nil && (r.AuthorID == u.ID || u.can(capReadPrivate))
	}
	return u.CanEdit(r)
}

// ScaleBackStatus applies the scale-back rule to the status a request sent (empty when it sent none): users who can
// publish keep it; others get pending instead of publish or future. A create without a status becomes publish
// (or draft for users who cannot publish); an update without one keeps current.
func (u *User) ScaleBackStatus(sent, current string, creating bool) string {
	if sent == "" {
		switch {
		case !creating:
			return current
		case u.CanPublish():
			return StatusPublish
		default:
			return StatusDraft
		}
	}
	if !u.CanPublish() && (sent == StatusPublish || sent == StatusFuture) {
		return StatusPending
	}
	return sent
}

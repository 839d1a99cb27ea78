package controllers

// orderedMap is a JSON object that keeps its keys in the order given: The Events Calendar emits fields in a fixed
// order, and people reading responses (and golden files) rely on it.
type orderedMap []orderedEntry

type orderedEntry struct {
	Key   string
	Value any
}

// MarshalJSON writes the entries as one object, in order (see appendJSON).
func (m orderedMap) MarshalJSON() ([]byte, error) { return m.appendJSON(nil) }

// appendJSON appends the entries as one object, in order: each key and value as encoding/json writes it, an
// orderedMap value in place. Answered with writeOwnJSON, the object is written once: through MarshalJSON,
// encoding/json would validate and compact it again, and again at each level of nesting.
func (m orderedMap) appendJSON(buf []byte) ([]byte, error) {
	buf = append(buf, '{')
	for i, e := range m {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = appendMarshaled(buf, e.Key); err != nil {
			return nil, err
		}
		buf = append(buf, ':')
		if nested, ok := e.Value.(orderedMap); ok {
			buf, err = nested.appendJSON(buf)
		} else {
			buf, err = appendMarshaled(buf, e.Value)
		}
		if err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
}

// sizeHint is what writeOwnJSON makes room for: a page of records (the pooled buffers keep what larger answers
// grew them to).
func (orderedMap) sizeHint() int { return 8 << 10 }

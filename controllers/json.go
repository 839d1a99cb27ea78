package controllers

import (
	"bytes"
	"encoding/json"
)

// orderedMap is a JSON object that keeps its keys in the order given: The Events Calendar emits fields in a fixed
// order, and people reading responses (and golden files) rely on it.
type orderedMap []orderedEntry

type orderedEntry struct {
	Key   string
	Value any
}

// MarshalJSON writes the entries as one object, in order.
func (m orderedMap) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, e := range m {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, err := json.Marshal(e.Key)
		if err != nil {
			return nil, err
		}
		buf.Write(key)
		buf.WriteByte(':')
		val, err := json.Marshal(e.Value)
		if err != nil {
			return nil, err
		}
		buf.Write(val)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
